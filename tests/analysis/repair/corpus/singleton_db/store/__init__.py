class Database:
    _instance = None

    def __init__(self, url):
        self.url = url

    @classmethod
    def get(cls, url="sqlite:///:memory:"):
        if cls._instance is None:
            cls._instance = cls(url)
        return cls._instance
