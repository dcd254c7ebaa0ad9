$ qconf -Acal Acal-window.input
