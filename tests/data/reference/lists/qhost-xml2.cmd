qhost -xml
