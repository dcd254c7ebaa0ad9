qmake_sge -help
