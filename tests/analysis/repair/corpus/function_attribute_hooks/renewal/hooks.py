"""Hooks run after renewing: a renewal saves its post hook to run once at the end."""


def post_hook(command, final=False):
    """Save ``command`` to run at the end; with ``final``, return the saved ones."""
    if not final:
        if command not in post_hook.eventually:
            post_hook.eventually.append(command)
        return []
    return list(post_hook.eventually)


post_hook.eventually = []
