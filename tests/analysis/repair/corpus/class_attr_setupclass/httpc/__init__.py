class Client:
    timeout = 30

    def __init__(self, base_url):
        self.base_url = base_url
        self.effective_timeout = self.timeout
