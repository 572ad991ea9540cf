from voice.registry import Registry

Commands = Registry()
