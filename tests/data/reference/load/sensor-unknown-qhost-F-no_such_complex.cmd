$ qhost -F no_such_complex
