$ qconf -Mcal /nonexistent/file
