(as sgeuser) qacct -j 316
