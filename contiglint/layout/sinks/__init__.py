"""Where layout matters: the sinks the flow pass reports, and the contracts that make a call one."""
