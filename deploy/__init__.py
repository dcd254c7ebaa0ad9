"""pygridengine: deploy package."""
