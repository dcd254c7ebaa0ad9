$ qconf -drqs
