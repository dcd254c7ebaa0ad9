(as sgeuser) qacct -j 317
