$ sge_as_user qconf -Arqs /tmp/rqsw/user.rqs
