import pytest

from warehouse import Inventory, SessionCache


class TestInventory:
    @pytest.fixture(scope="class")
    def inventory(self):
        return Inventory(["bolt", "nut"])

    def test_ship_bolt(self, inventory):
        inventory.remove("bolt")
        assert "bolt" not in inventory.items

    def test_count(self, inventory):
        assert inventory.count() == 2


class TestSessions:
    @pytest.fixture(autouse=True, scope="class")
    def _sessions(self, request):
        request.cls.sessions = SessionCache()

    def test_login(self):
        self.sessions["s1"] = "ann"
        assert self.sessions["s1"] == "ann"

    def test_anonymous(self):
        assert "s1" not in self.sessions
