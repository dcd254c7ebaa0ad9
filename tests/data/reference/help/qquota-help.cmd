qquota -help
