$ qquota -u '*' -xml
