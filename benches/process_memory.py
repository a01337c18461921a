"""This process's memory, read from Linux, for the scripts that measure a fit in a worker process."""

import os
import resource


def rss_mb():
    """Resident set size now."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mb():
    """This process's own high-water mark, VmHWM: ru_maxrss would start at the forking parent's RSS,
    and reset_peak cannot lower it. ru_maxrss where /proc has no VmHWM."""
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def reset_peak():
    """Lowers the high-water mark to the current RSS (Linux 4.0+), so that the peak is the fit's own,
    not the data's making. False where the kernel refuses."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False
