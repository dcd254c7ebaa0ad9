qhost
