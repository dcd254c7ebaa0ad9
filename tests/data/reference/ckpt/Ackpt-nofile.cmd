$ qconf -Ackpt /nonexistent/file
