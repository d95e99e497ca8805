"""The task's git workspace: clone, branch, commit as the App's bot user, push, clean up."""
