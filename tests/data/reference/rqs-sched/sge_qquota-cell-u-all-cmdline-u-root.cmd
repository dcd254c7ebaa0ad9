$ qquota -u root
