$ qquota -u '*'
