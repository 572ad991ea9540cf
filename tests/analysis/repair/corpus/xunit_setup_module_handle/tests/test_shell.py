from . import context

# the module's xunit set-up and the fixture come from the shared test context
setup_module, teardown_module, shell = context.setup_module, context.teardown_module, context.shell


def test_ls(shell, capsys):
    shell.do_ls()
    assert capsys.readouterr().out == "groceries work\n"


def test_cat(shell, capsys):
    shell.do_cat("groceries")
    assert capsys.readouterr().out == "milk\neggs\n"


def test_rm_page(shell, capsys):
    shell.do_rm("work")
    shell.do_ls()
    assert capsys.readouterr().out == "groceries\n"


def test_rm_item(shell, capsys):
    shell.do_rm("groceries", "eggs")
    shell.do_cat("groceries")
    assert capsys.readouterr().out == "milk\n"
