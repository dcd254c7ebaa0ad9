qselect -l arch=foo
