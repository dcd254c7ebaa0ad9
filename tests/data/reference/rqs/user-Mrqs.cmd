$ sge_as_user qconf -Mrqs /tmp/rqsw/user.rqs user_set
