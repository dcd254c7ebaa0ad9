$ qconf -Acal /nonexistent/file
