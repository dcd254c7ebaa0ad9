$ sge_as_user qconf -Mprj /tmp/prjw/user-p1.prj
