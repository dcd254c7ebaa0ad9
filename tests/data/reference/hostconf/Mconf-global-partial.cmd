$ qconf -Mconf files/Mconf-global-partial/global
