(as sgeuser) qacct -j 315
