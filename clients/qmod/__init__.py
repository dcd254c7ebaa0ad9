"""``qmod``: change the state of queue instances and of jobs (Grid Engine 8.1.9's qmod(1))."""
