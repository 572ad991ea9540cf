class Renderer:
    style = "full"

    def render(self, title):
        return title if self.style == "compact" else f"== {title} =="
