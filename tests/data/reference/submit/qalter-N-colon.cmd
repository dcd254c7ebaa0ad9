$ qalter -N a:b 263
