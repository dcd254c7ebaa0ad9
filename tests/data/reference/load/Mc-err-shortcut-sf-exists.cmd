$ qconf -Mc Mc-err-shortcut-sf-exists.input
