(as sgeuser) qacct -j 318
