$ qconf -Arqs name-dash-underscore.input
