$ qconf -Mconf /nonexistent/vm
