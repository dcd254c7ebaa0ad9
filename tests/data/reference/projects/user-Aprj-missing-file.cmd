$ sge_as_user qconf -Aprj /nonexistent/file
