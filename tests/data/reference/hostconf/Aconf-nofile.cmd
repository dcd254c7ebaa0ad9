$ qconf -Aconf /nonexistent/vm
