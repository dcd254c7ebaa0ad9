qhost -ncb -xml
