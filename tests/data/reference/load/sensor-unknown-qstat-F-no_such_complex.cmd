$ qstat -F no_such_complex
