"""Voice commands: core commands, commands of an application, top-level commands.

What can be said in the current application is merged once per combination of active
applications and cached, as a speech engine compiles a grammar once.
"""

import threading


class Registry:
    def __init__(self):
        self._lock = threading.RLock()  # the engine's callbacks run on its own thread
        self.core = []
        self.apps = []
        self.app_commands = []
        self.merged = {}
        self.top_level = []

    def add(self, commands, app=None, top_level=False):
        with self._lock:
            if top_level:
                self.top_level.append(list(commands))
            elif app is None:
                self.core.extend(commands)
            else:
                self.apps.append(app)
                self.app_commands.append(list(commands))

    def recognise(self, word, app=None):
        with self._lock:
            active = tuple(name == app for name in self.apps)
            if active not in self.merged:
                words = list(self.core)
                for commands, on in zip(self.app_commands, active):
                    if on:
                        words.extend(commands)
                self.merged[active] = words
            return word in self.merged[active]

    def clear(self):
        with self._lock:
            self.core = []
            self.apps = []
            self.app_commands = []
            self.merged = {}
            self.top_level = []
