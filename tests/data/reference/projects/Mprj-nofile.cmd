$ qconf -Mprj /nonexistent/file
