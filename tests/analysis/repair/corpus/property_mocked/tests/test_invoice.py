from unittest import mock

import billing


def test_total_of_lines():
    assert billing.Invoice([3, 4]).total == 7


def test_nothing_due_for_no_lines():
    assert not billing.Invoice([]).due()


def test_due_when_the_total_is_positive():
    invoice = billing.Invoice([])
    type(invoice).total = mock.PropertyMock(return_value=12)
    assert invoice.due()
