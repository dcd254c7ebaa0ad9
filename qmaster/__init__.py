"""pygridengine: qmaster package."""
