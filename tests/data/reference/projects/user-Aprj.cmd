$ sge_as_user qconf -Aprj /tmp/prjw/user.prj
