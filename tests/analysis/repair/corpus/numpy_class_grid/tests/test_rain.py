import numpy as np

from radar import find_rain


class TestFindRain:
    z = np.zeros((24, 5))

    def test_dry_profile(self):
        assert find_rain(self.z).sum() == 0

    def test_rain_everywhere(self):
        self.z[:, 3] = 0.1
        assert find_rain(self.z).sum() == 24
