def draw(data):
    return "#" * len(data)
