import faulthandler
import sys

# A hung test run dumps every thread's stack and exits instead of blocking CI forever.
# Real suites allow minutes; a few seconds keep this project quick to run.
WATCHDOG_SECONDS = 3
faulthandler.dump_traceback_later(WATCHDOG_SECONDS, exit=True, file=sys.__stderr__)
