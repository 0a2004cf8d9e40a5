package dev.kmeta.producer.internal.stats;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.ReflectionException;

/**
 * A {@link DynamicMBean} of read-only attributes and no operations, for the route's MBeans (no interface of kmeta's
 * needs exporting): a subclass says what each attribute is ({@link #getAttribute}, {@link #getMBeanInfo}).
 *
 * <p>Thread-safe as far as its subclass's {@link #getAttribute} is.
 */
abstract class ReadOnlyMBean implements DynamicMBean {
    /** The attribute's value now; a read never fails but for an unknown name. */
    @Override
    public abstract Object getAttribute(String attribute) throws AttributeNotFoundException;

    @Override
    public AttributeList getAttributes(String[] attributes) {
        AttributeList out = new AttributeList();
        for (String a : attributes) {
            try {
                out.add(new Attribute(a, getAttribute(a)));
            } catch (AttributeNotFoundException e) {
                // left out, as the contract says
            }
        }
        return out;
    }

    @Override
    public final void setAttribute(Attribute attribute) throws AttributeNotFoundException {
        throw new AttributeNotFoundException(attribute.getName() + " is read-only");
    }

    @Override
    public final AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public final Object invoke(String actionName, Object[] params, String[] signature) throws ReflectionException {
        throw new ReflectionException(new NoSuchMethodException(actionName));
    }
}
