$ qconf -Arqs /nonexistent/file
