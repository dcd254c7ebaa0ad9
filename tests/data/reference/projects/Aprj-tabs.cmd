$ qconf -Aprj Aprj-tabs.input
