qacct -l arch=foo
