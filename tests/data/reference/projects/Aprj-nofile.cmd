$ qconf -Aprj /nonexistent/file
