qhost -l arch=foo
