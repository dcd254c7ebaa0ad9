$ qconf -Arqs desc-tabs.input
