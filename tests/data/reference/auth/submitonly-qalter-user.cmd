$ (on host localhost) qalter -N userjob2 303
