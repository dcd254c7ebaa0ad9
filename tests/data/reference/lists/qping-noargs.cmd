qping
