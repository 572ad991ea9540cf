class Catalog:
    def __init__(self, prices):
        self.prices = dict(prices)

    @classmethod
    def from_defaults(cls):
        return cls({"tea": 2.0, "coffee": 3.0})

    def discount(self, item, factor):
        self.prices[item] = round(self.prices[item] * factor, 2)

    def price(self, item):
        return self.prices[item]
